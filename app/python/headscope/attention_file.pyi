from os import PathLike
from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

FORMAT: str
VERSION: str

def stack_attention(attentions: Any, batch: int = 0) -> npt.NDArray[np.float32]: ...
def save_attention(path: Union[str, PathLike[str]], attentions: Any, tokens: Sequence[str], name: Optional[str] = None,
                   batch: int = 0, token_ids: Optional[Sequence[int]] = None,
                   special_tokens: Optional[Sequence[int]] = None, segment_b_start: Optional[int] = None,
                   causal: Optional[bool] = None, compress: bool = False) -> npt.NDArray[np.float32]: ...
