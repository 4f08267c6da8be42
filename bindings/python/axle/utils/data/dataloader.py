"""DataLoader, as torch 1.13's torch.utils.data.DataLoader, loading in the main process.

It combines a dataset with a sampler and reads batches: for a map-style
dataset the sampler (SequentialSampler, RandomSampler when shuffle=True, or
the one given) gives indices that BatchSampler groups by batch_size, the
samples at a batch's indices go through collate_fn (default_collate); a
batch_sampler gives the index lists itself; batch_size=None turns automatic
batching off (each sample goes through default_convert). An IterableDataset is
read in order, batch_size samples at a time. The options are checked as torch
checks them, with its messages.

Multi-process loading is not implemented: num_workers > 0 is accepted with a
UserWarning and loading runs in the main process as a single worker (see
_utils/worker.py: worker_init_fn(0) is called at the start of each pass and
get_worker_info() gives id 0 of 1 while the dataset and collate_fn run).
pin_memory is accepted and has no effect (axle has no pinned host memory);
timeout, prefetch_factor, persistent_workers and multiprocessing_context are
checked as torch checks them and otherwise unused."""
import math
import multiprocessing
import warnings
from typing import Generic, TypeVar

from ._utils import rng as _rng
from ._utils.collate import default_collate, default_convert
from ._utils.worker import WorkerInfo, _as_worker, get_worker_info
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

T_co = TypeVar("T_co", covariant=True)


class _DatasetKind(object):
    Map = 0
    Iterable = 1


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: None for ever (the dataset decides the end)."""

    def __init__(self):
        super().__init__(None)

    def __iter__(self):
        while True:
            yield None


class DataLoader(Generic[T_co]):
    """Batches of a dataset; see the module docstring."""

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=2, persistent_workers=False,
                 pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing.")
        assert prefetch_factor > 0
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "shuffle option, but got shuffle={}".format(shuffle))
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "sampler option, but got sampler={}".format(sampler))
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "batch_sampler option, but got batch_sampler={}".format(batch_sampler))
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive "
                                 "with batch_size, shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching "
                             "and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        if num_workers > 0:
            warnings.warn("axle's DataLoader has no worker processes: num_workers={} loads in the main "
                          "process, as a single worker (worker_init_fn(0) at the start of each pass, "
                          "get_worker_info() gives id 0 of 1)".format(num_workers), UserWarning, stacklevel=2)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers == 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading "
                                 "(num_workers > 0), but got num_workers={}".format(self.num_workers))
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid start method in "
                                     "{!r}, but got multiprocessing_context={!r}".format(methods, context))
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a string "
                                "specifying the start method, but got "
                                "multiprocessing_context={}".format(context))
        self.__multiprocessing_context = context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError("{} attribute should not be set after {} is "
                             "initialized".format(attr, type(self).__name__))
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            # The dataset's own length, in batches: a guess that the loader trusts.
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _SingleProcessDataLoaderIter(object):
    """One pass over a DataLoader."""

    def __init__(self, loader):
        if loader.timeout != 0 and loader.num_workers == 0:
            raise AssertionError("timeout option needs num_workers > 0 (got timeout={})".format(loader.timeout))
        self._loader = loader
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._collate_fn = loader.collate_fn
        self._num_workers = loader.num_workers
        self._sampler_iter = iter(self._index_sampler)
        # Drawn from the loader's generator each pass, as torch (its workers' seeds).
        self._base_seed = _rng.random_seed(loader.generator)
        self._num_yielded = 0
        self._worker = None
        if self._num_workers > 0:
            self._worker = WorkerInfo(id=0, num_workers=1, seed=self._base_seed, dataset=self._dataset)
        with _as_worker(self._worker):
            if self._worker is not None and loader.worker_init_fn is not None:
                loader.worker_init_fn(0)
            self._dataset_iter = iter(self._dataset) if self._dataset_kind == _DatasetKind.Iterable else None
        self._ended = False

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def _fetch_iterable(self, index):
        if self._ended:
            raise StopIteration
        if not self._auto_collation:
            return self._collate_fn(next(self._dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if not data or (self._drop_last and len(data) < len(index)):
            raise StopIteration
        return self._collate_fn(data)

    def _fetch_map(self, index):
        if not self._auto_collation:
            return self._collate_fn(self._dataset[index])
        getitems = getattr(self._dataset, "__getitems__", None)
        if getitems:
            data = getitems(index)
        else:
            data = [self._dataset[i] for i in index]
        return self._collate_fn(data)

    def __next__(self):
        index = next(self._sampler_iter)
        with _as_worker(self._worker):
            if self._dataset_kind == _DatasetKind.Iterable:
                data = self._fetch_iterable(index)
            else:
                data = self._fetch_map(index)
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            warnings.warn("Length of IterableDataset {} was reported to be {} (when accessing len(dataloader)), "
                          "but {} samples have been fetched. ".format(self._dataset, self._IterableDataset_len_called,
                                                                      self._num_yielded))
        return data

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled".format(type(self).__name__))

