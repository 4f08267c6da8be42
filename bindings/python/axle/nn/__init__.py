"""axle.nn: torch.nn's modules (Module, containers, layers), Parameter, init and
the functional namespace."""
from . import functional  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .parameter import Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from .modules.transformer import multi_head_attention_forward as _mha_forward  # noqa: E402
from . import _aten  # noqa: E402

functional.multi_head_attention_forward = _mha_forward  # torch.nn.functional's; it lives with MultiheadAttention

_aten.install(__import__("axle"))
