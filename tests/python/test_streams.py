"""Streams and events from Python (the host device: work is synchronous, but the
current-stream bookkeeping and non_blocking paths are the same as on a device;
tests/dispatcher/test_device.cpp checks the asynchronous arena device)."""
import numpy
import pytest

import axle


def test_current_stream_and_guard():
    assert axle.current_stream("cpu").is_default
    s = axle.Stream("cpu")
    assert not s.is_default and s.device == "cpu:0"
    with axle.stream(s):
        assert axle.current_stream("cpu") == s
        x = axle.ones(4) + 1
        y = x.to("cpu", non_blocking=True)
        s.synchronize()
        assert y.tolist() == [2.0] * 4
    assert axle.current_stream("cpu").is_default
    e = axle.Event("cpu")
    e.record(s)
    e.wait(axle.Stream.default("cpu"))
    e.synchronize()
    axle.synchronize("cpu")


def test_record_stream():
    # The host allocator is not stream-ordered: accepted and a no-op, as for a
    # view and a numpy-backed tensor; anything but a Stream is a TypeError (a
    # stream of another device is a DeviceError: test_device.cpp, arena).
    s = axle.Stream("cpu")
    x = axle.ones(8)
    x.record_stream(s)
    x[2:5].record_stream(axle.Stream.default("cpu"))
    axle.from_numpy(numpy.ones(3)).record_stream(s)
    assert x.tolist() == [1.0] * 8
    with pytest.raises(TypeError):
        x.record_stream("cpu")


def test_stream_errors():
    with pytest.raises(axle.DeviceError):
        axle.Stream("cpu:3")


def test_pin_memory_errors_name_the_reason():
    # The host runtime has no pinned memory, and without a GPU no device type offers it here.
    assert not axle.ones(2).is_pinned()
    with pytest.raises(axle.NotImplementedError, match="pinned host memory"):
        axle.ones(2).pin_memory("cpu")
    if all(d["count"] == 0 for d in axle.devices() if d["type"] != "cpu"):
        with pytest.raises(axle.DeviceError, match="pin_memory"):
            axle.ones(2).pin_memory()


def test_memory_stats_follow_allocations():
    before = axle.memory_stats("cpu")
    assert set(before) == {"allocated_bytes", "reserved_bytes", "peak_allocated_bytes", "num_allocs", "num_frees"}
    t = axle.empty(1 << 20)  # 4 MiB of float32
    assert axle.memory_allocated("cpu") >= before["allocated_bytes"] + (4 << 20)
    assert axle.max_memory_allocated("cpu") >= axle.memory_allocated("cpu")
    assert axle.memory_reserved("cpu") >= axle.memory_allocated("cpu")
    del t
    assert axle.memory_allocated("cpu") == before["allocated_bytes"]
    axle.empty_cache("cpu")
    assert axle.memory_reserved("cpu") <= before["reserved_bytes"] + (4 << 20)
    with pytest.raises(axle.DeviceError, match="cpu:3"):
        axle.memory_stats("cpu:3")


def test_a_large_block_used_twice_is_released_for_a_huge_page_one():
    # A large block starts on 4 KiB pages and is cached; once handed out a second
    # time its size counts as recurring: its next free releases it (reserved
    # bytes drop) so the next block of that size is made with huge pages, and
    # that one stays cached.
    axle.empty_cache("cpu")
    n = (37 << 20) // 4 + 123  # a size no other test allocates
    def reserved_after_free():
        t = axle.empty(n)
        del t
        return axle.memory_reserved("cpu")
    base = axle.memory_reserved("cpu")
    first = reserved_after_free()   # made, cached
    assert first >= base + (37 << 20)
    second = reserved_after_free()  # reused (second use), released on free
    assert second <= first - (37 << 20)
    third = reserved_after_free()   # made again (huge pages), cached
    assert third >= second + (37 << 20)
    assert reserved_after_free() == third  # reused from the cache from now on
    axle.empty_cache("cpu")
