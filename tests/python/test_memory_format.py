"""channels_last as torch: contiguous/to/is_contiguous with memory_format=, and
elementwise ops, clone and conv2d keeping a channels_last input's layout."""
import numpy as np
import pytest

import axle
import axle.nn.functional as AF

torch = pytest.importorskip("torch")

A = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)


def pair():
    return axle.from_numpy(A.copy()), torch.from_numpy(A.copy())


def test_contiguous_and_is_contiguous():
    x, t = pair()
    xc, tc = x.contiguous(memory_format=axle.channels_last), t.contiguous(memory_format=torch.channels_last)
    assert xc.stride() == tc.stride()
    assert xc.is_contiguous(memory_format=axle.channels_last) and not xc.is_contiguous()
    assert xc.contiguous().stride() == tc.contiguous().stride()
    assert xc.contiguous(memory_format=axle.channels_last) is xc or xc.contiguous(
        memory_format=axle.channels_last)._same_storage(xc)
    np.testing.assert_array_equal(np.asarray(xc), A)
    with pytest.raises(axle.ValueError):
        x.contiguous(memory_format=axle.preserve_format)
    with pytest.raises(axle.AxleError):
        axle.ones(2, 3).contiguous(memory_format=axle.channels_last)


CASES = [
    ("add scalar", lambda m, mod: m + 1),
    ("mul", lambda m, mod: m * m),
    ("exp", lambda m, mod: m.exp()),
    ("relu", lambda m, mod: m.relu()),
    ("sigmoid", lambda m, mod: m.sigmoid()),
    ("clamp", lambda m, mod: m.clamp(-0.5, 0.5)),
    ("clone", lambda m, mod: m.clone()),
    ("to float64", lambda m, mod: m.to(mod.float64)),
    ("add broadcast", lambda m, mod: m + mod.ones(5)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_elementwise_ops_keep_channels_last(name, fn):
    x, t = pair()
    xc, tc = x.contiguous(memory_format=axle.channels_last), t.contiguous(memory_format=torch.channels_last)
    g, w = fn(xc, axle), fn(tc, torch)
    assert g.stride() == w.stride(), name
    np.testing.assert_allclose(np.asarray(g.to(axle.float64)), w.double().numpy(), rtol=1e-6)


def test_to_with_memory_format():
    x, t = pair()
    assert x.to(axle.float64, memory_format=axle.channels_last).stride() == \
        t.to(torch.float64, memory_format=torch.channels_last).stride()


def test_conv2d_keeps_channels_last():
    x, t = pair()
    w = np.random.default_rng(1).standard_normal((4, 3, 3, 3)).astype(np.float32)
    got = AF.conv2d(x.contiguous(memory_format=axle.channels_last), axle.from_numpy(w), padding=1)
    want = torch.nn.functional.conv2d(t.contiguous(memory_format=torch.channels_last), torch.from_numpy(w), padding=1)
    assert got.stride() == want.stride()
    np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-4, atol=1e-5)
