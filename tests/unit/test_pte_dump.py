"""format_program: the condensed dump names what matters; the verbose one shows every field."""
import dataclasses

from aot.pte import format_program
from aot.program import (AllocationDetails, BackendDelegate, BackendDelegateDataReference,
                         BackendDelegateInlineData, Buffer, Chain, ContainerMetadata, DataLocation,
                         DelegateCall, Double, ExecutionPlan, Frame, FrameList, FreeCall, Int,
                         IntList, JumpFalseCall, KernelCall, MoveCall, Null, Operator,
                         OptionalTensorList, Program, ScalarType, Tensor, TensorList)


def _program() -> Program:
    f32 = lambda sizes, **kw: Tensor(ScalarType.FLOAT, 0, sizes, tuple(range(len(sizes))), **kw)
    values = (
        f32((1, 2, 4, 4), allocation_info=AllocationDetails.at(1, 0)),   # 0
        f32((3, 2, 3, 3), data_buffer_idx=1),                            # 1
        Null(),                                                          # 2
        Int(1),                                                          # 3
        IntList((3, 3)),                                                 # 4
        f32((1, 3, 2, 2), allocation_info=AllocationDetails.at(1, 128)), # 5
        Double(0.5),                                                     # 6
        TensorList((0, 5)),                                              # 7
        OptionalTensorList((0, -1)),                                     # 8
        Tensor(ScalarType.CHAR, 0, (2,), (0,)),                          # 9
    )
    chain = Chain((0,), (5,), (
        KernelCall(0, (0, 1, 2, 4, 3, 5, 5)),
        KernelCall(1, (0, 6, 0, 5, 7)),
        DelegateCall(0, (5, 9)),
        MoveCall(5, 0),
        JumpFalseCall(3, 0),
        FreeCall(9),
    ), tuple(FrameList((Frame("model.py", 10 + i, "forward", "x"),)) for i in range(6)))
    plan = ExecutionPlan("forward", ContainerMetadata("", ""), values, (0,), (5,), (chain,),
                         (Operator("aten::convolution", "out"), Operator("aten::split", "out")),
                         (BackendDelegate("Npu", BackendDelegateDataReference(
                             DataLocation.INLINE, 0)),),
                         (0, 160))
    return Program(0, (plan,), (Buffer(b""), Buffer(bytes(216))),
                   (BackendDelegateInlineData(b"blob"),))


def test_condensed_dump():
    text = format_program(_program())
    assert "1 constant(s) (216 B), 1 delegate blob(s) (4 B)" in text
    assert "memory areas: #1 = 160 B" in text
    assert "%0  f32[1, 2, 4, 4]  arena 1 @ 0" in text
    assert "%1  f32[3, 2, 3, 3]  const #1 (216 B)" in text
    assert "%4  int_list [%3, %3] = [1, 1]" in text
    assert "%8  optional_tensor_list [%0, None]" in text
    assert "%9  i8[2]  set at run time" in text
    # Out arguments repeated at the end are shown as results, even as a list of tensors.
    assert "0: aten::convolution.out(%0, %1, %2=None, %4, %3=1, %5) -> %5    # model.py:10" in text
    assert "1: aten::split.out(%0, %6=0.5, %0, %5) -> %7" in text
    assert "2: delegate 0 Npu(%5, %9)" in text
    assert "3: move %5 -> %0" in text
    assert "4: jump_false %3 -> 0" in text
    assert "5: free %9" in text


def test_verbose_dump_shows_every_field():
    program = _program()
    text = format_program(program, verbose=True)

    def names(obj):
        if dataclasses.is_dataclass(obj):
            for f in dataclasses.fields(obj):
                yield f.name
                yield from names(getattr(obj, f.name))
        elif isinstance(obj, tuple):
            for item in obj:
                yield from names(item)

    lines = {line.strip().split(":")[0] for line in text.splitlines()}
    assert set(names(program)) <= lines
    assert "storage: <216 bytes: 00 00 00" in text
    assert "shape_dynamism: STATIC" in text
