"""``executorch_call_delegate``: the higher-order operator a delegate call is in a graph.

``LoweredBackendModule.forward`` calls it, so a lowered module can sit inside a new nn.Module
that torch.export traces again (flow 2). Tracing records one node,

    %lowered_module_0 = get_attr[target=lowered_module_0]
    %executorch_call_delegate = call_function[target=executorch_call_delegate](
        args = (%lowered_module_0, %x, ...))

with the lowered module attached to the traced root under a free ``lowered_module_<i>`` name.
The operator has four implementations, one per way it is reached:
  * eager (CompositeExplicitAutograd): run the program the module was lowered from;
  * fake tensors (FakeTensorMode): the same, on fake tensors, which gives output shapes;
  * tracing (ProxyTorchDispatchMode): compute the outputs untraced, then record the node;
  * functionalization: unwrap, call the operator again below, wrap.
Autograd is not supported: delegates run inference only.

torch ships an operator of the same name (ExecuTorch's); ours is separate, and the global
``torch.ops.higher_order`` table keeps torch's entry so ExecuTorch keeps working beside us.
Every pass recognises a delegate call by ``is_delegate_call(node)``.
"""
from __future__ import annotations

import torch
import torch.utils._pytree as pytree
from torch._ops import HigherOrderOperator, _higher_order_ops
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import (ProxyTorchDispatchMode,
                                                disable_proxy_modes_tracing, get_proxy_slot,
                                                track_tensor_tree)

from ..ir import DELEGATE_CALL as NAME, is_delegate_call   # noqa: F401  (aot.backend's)


class CallDelegate(HigherOrderOperator):
    def __init__(self):
        torch_own = _higher_order_ops.get(NAME)
        super().__init__(NAME)
        if torch_own is not None:     # leave torch.ops.higher_order.<NAME> as torch made it
            _higher_order_ops[NAME] = torch_own

    def __call__(self, lowered_module, *args):
        return super().__call__(lowered_module, *args)


executorch_call_delegate = CallDelegate()


def is_lowered_module(obj) -> bool:
    """A LoweredBackendModule, known by what the operator reads of it (lowered.py imports this
    module, so it is not imported here)."""
    return isinstance(obj, torch.nn.Module) and hasattr(obj, "original_module") and \
        hasattr(obj, "processed_bytes") and hasattr(obj, "backend_id")


def _plain(args):
    """FX hands over immutable_list/immutable_dict; the program wants lists and dicts."""
    fx = torch.fx.immutable_collections
    return pytree.tree_map_only((fx.immutable_list, fx.immutable_dict),
                                lambda a: list(a) if isinstance(a, list) else dict(a), args)


@executorch_call_delegate.py_impl(torch._C.DispatchKey.CompositeExplicitAutograd)
def _eager(lowered_module, *args):
    return lowered_module.original_module.module()(*_plain(args))


@executorch_call_delegate.py_autograd_impl
def _autograd(lowered_module, *args):
    with torch._C._ExcludeDispatchKeyGuard(
            torch._C.DispatchKeySet(torch._C.DispatchKey.AutogradCPU)):
        return executorch_call_delegate(lowered_module, *args)


@executorch_call_delegate.py_impl(FakeTensorMode)
def _fake(mode, lowered_module, *args):
    with mode:
        return _eager(lowered_module, *args)


def _attach(root: torch.nn.Module, lowered_module) -> str:
    """The lowered module's name on the traced root: added under a free name unless there."""
    for name, child in root.named_children():
        if child is lowered_module:
            return name
    i = 0
    while hasattr(root, f"lowered_module_{i}"):
        i += 1
    root.add_module(f"lowered_module_{i}", lowered_module)
    return f"lowered_module_{i}"


@executorch_call_delegate.py_impl(ProxyTorchDispatchMode)
def _trace(mode, lowered_module, *args):
    if not is_lowered_module(lowered_module):
        raise TypeError(f"{NAME} takes a LoweredBackendModule first, not "
                        f"{type(lowered_module).__name__}")
    with disable_proxy_modes_tracing():
        out = _eager(lowered_module, *args)
    _attach(mode.tracer.root, lowered_module)

    def proxy(a):
        if isinstance(a, (torch.Tensor, torch.SymInt, torch.SymFloat)):
            return get_proxy_slot(a, mode.tracer, a, lambda e: e.proxy)
        return a

    node_args = pytree.tree_map(proxy, (lowered_module, *args))
    out_proxy = mode.tracer.create_proxy("call_function", executorch_call_delegate, node_args,
                                         {}, name=NAME)
    return track_tensor_tree(out, out_proxy, constant=None, tracer=mode.tracer)


@executorch_call_delegate.py_functionalize_impl
def _functionalize(ctx, lowered_module, *args):
    unwrapped = tuple(ctx.unwrap_tensors(a) for a in args)
    with ctx.redispatch_to_next():
        return ctx.wrap_tensors(executorch_call_delegate(lowered_module, *unwrapped))
