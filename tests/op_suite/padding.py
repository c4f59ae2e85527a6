"""Cases for the padding modes (reflect, replicate: aten.reflection_padNd and
aten.replication_padNd) over 1-, 2- and 3-D padding, batched and not, cropping (negative) pads,
integer dtypes and width-1 inputs."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .common import Case, case, edge, ints, rand

CASES: list[Case] = []
add = CASES.append


# -- reflect / replicate padding (aten.reflection_padNd, aten.replication_padNd) ----------------
# (tag, input shape, pad list); the pad list has 2, 4 or 6 entries for 1-, 2- and 3-D padding.
_PADS = [
    ("1d_batched", (2, 3, 7), (2, 3)),
    ("1d_unbatched", (3, 6), (1, 0)),
    ("1d_crop", (2, 8), (-2, 3)),
    ("2d_batched", (1, 2, 5, 6), (1, 2, 3, 0)),
    ("2d_unbatched", (3, 4, 4), (3, 3, 3, 3)),
    ("2d_crop", (1, 2, 6, 5), (2, -1, -2, 1)),
    ("3d_batched", (1, 2, 3, 4, 5), (1, 1, 2, 0, 0, 2)),
    ("3d_unbatched", (2, 4, 3, 3), (2, 1, 1, 2, 3, 0)),
]
for _mode, _short in (("reflect", "reflection"), ("replicate", "replication")):
    for _tag, _shape, _pad in _PADS:
        add(case(f"{_short}_pad{_tag}", lambda x, p=_pad, m=_mode: F.pad(x, p, mode=m),
                 edge(*_shape)))
    add(case(f"{_short}_pad2d_int64", lambda x, m=_mode: F.pad(x, (2, 1, 1, 2), mode=m),
             ints(1, 3, 4, lo=-50, hi=50)))
    add(case(f"{_short}_pad1d_int32", lambda x, m=_mode: F.pad(x, (3, 2), mode=m),
             ints(2, 5, lo=-50, hi=50, dtype=torch.int32)))
    add(case(f"{_short}_pad1d_width1", lambda x, m=_mode: F.pad(x, (0, 0), mode=m),
             rand(2, 1)))
add(case("replication_pad1d_from_width1", lambda x: F.pad(x, (3, 2), mode="replicate"),
         edge(2, 3, 1)))
add(case("reflection_pad2d_module", nn.ReflectionPad2d((1, 0, 2, 1)), rand(1, 3, 4, 5)))
add(case("replication_pad3d_module", nn.ReplicationPad3d(1), rand(1, 1, 2, 3, 2)))
