"""axle.utils.data: torch 1.13's data loading utilities (torch.utils.data).

Datasets (Dataset, IterableDataset, TensorDataset, ConcatDataset, ChainDataset,
Subset, random_split), samplers (Sampler, SequentialSampler, RandomSampler,
SubsetRandomSampler, WeightedRandomSampler, BatchSampler), DataLoader (loading
in the main process; num_workers > 0 warns and runs as one worker there),
default_collate, default_convert and get_worker_info. Random draws come from
axle's generators: a seeded generator repeats its order, but the orders are
not torch's."""
from .dataset import (  # noqa: F401
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (  # noqa: F401
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .dataloader import DataLoader, _DatasetKind, default_collate, default_convert, get_worker_info  # noqa: F401
from . import distributed  # noqa: F401,E402
from .distributed import DistributedSampler  # noqa: F401,E402

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info", "random_split"]
