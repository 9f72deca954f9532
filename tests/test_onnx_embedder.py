"""The ONNX Runtime backend: the same vectors as PyTorch, an export made once and checked on
every load, and PyTorch whenever the export cannot be trusted."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mnemo.nlp.embedder import SentenceTransformerEmbedder, make_embedder
from mnemo.nlp.onnx_embedder import OnnxEmbedder, exportable

from .conftest import run_cli

TEXTS = [
    "Alice prefers dark mode in the mobile app.",
    "Ünïcödé and emoji 🙂, CJK 日本語.",
    "x",
    "The billing service depends on PostgreSQL since March. " * 60,  # past the 256-token limit
    "Why did the deploy fail on Tuesday?",
]


def test_onnx_vectors_equal_pytorch_vectors(real_embedder) -> None:
    assert isinstance(real_embedder, OnnxEmbedder)
    got = real_embedder.embed(TEXTS)
    assert real_embedder.backend == "onnx"
    want = real_embedder.torch.embed(TEXTS)
    assert got.shape == want.shape == (len(TEXTS), 384)
    assert float(np.abs(got - want).max()) < 1e-4
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert np.allclose(real_embedder.embed_query(TEXTS[0]), want[0], atol=1e-4)
    assert real_embedder.model_hash == real_embedder.torch.model_hash  # one index serves both


def test_a_cached_export_loads_without_pytorch(real_embedder, model_cache: Path) -> None:
    real_embedder.embed(["make sure the export exists"])
    code = (
        "import sys; from pathlib import Path\n"
        "from mnemo.nlp.embedder import make_embedder\n"
        f"e = make_embedder('all-MiniLM-L6-v2', backend='onnx', cache_dir=Path({str(model_cache)!r}))\n"
        "v = e.embed_query('hello')\n"
        "print(e.backend, len(v), [m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["onnx", "384", "[]"]
    files = sorted(p.name for p in model_cache.iterdir())
    assert [f for f in files if f.endswith(".onnx")] and not [f for f in files if f.endswith(".tmp")]
    for f in model_cache.iterdir():
        assert f.stat().st_mode & 0o077 == 0  # private, as every data file


def test_a_damaged_export_is_made_again(real_embedder, tmp_path: Path) -> None:
    cache = tmp_path / "models"
    first = OnnxEmbedder(real_embedder.torch, cache)
    want = first.embed(TEXTS[:2])
    [model] = cache.glob("*.onnx")
    model.write_bytes(b"not an onnx graph")
    second = OnnxEmbedder(real_embedder.torch, cache)
    assert np.allclose(second.embed(TEXTS[:2]), want, atol=1e-5) and second.backend == "onnx"
    assert model.stat().st_size > 1_000_000  # exported again


def test_probes_that_no_longer_match_force_a_new_export(real_embedder, tmp_path: Path) -> None:
    cache = tmp_path / "models"
    OnnxEmbedder(real_embedder.torch, cache).embed(["first"])
    [probes] = cache.glob("*.probes.npy")
    np.save(probes, np.zeros((4, 384), dtype=np.float32))
    again = OnnxEmbedder(real_embedder.torch, cache)
    v = again.embed(["first"])
    assert again.backend == "onnx" and float(np.abs(np.load(probes)).max()) > 0  # probes rewritten
    assert np.allclose(v, real_embedder.torch.embed(["first"]), atol=1e-4)


def test_without_onnx_the_embedder_falls_back_to_pytorch(real_embedder, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx → ImportError
    e = OnnxEmbedder(real_embedder.torch, tmp_path / "models")
    with caplog.at_level(logging.WARNING, logger="mnemo.nlp.onnx_embedder"):
        v = e.embed(TEXTS[:2])
    assert e.backend == "torch" and "embedding with PyTorch" in caplog.text
    assert np.allclose(v, real_embedder.torch.embed(TEXTS[:2]), atol=1e-6)
    assert not list((tmp_path / "models").glob("*.onnx"))


def test_backend_choice(tmp_path: Path) -> None:
    e = make_embedder("all-MiniLM-L6-v2", backend="torch", cache_dir=tmp_path)
    assert isinstance(e, SentenceTransformerEmbedder)
    assert isinstance(make_embedder("all-MiniLM-L6-v2", backend="onnx"), SentenceTransformerEmbedder)  # no cache: torch
    model = make_embedder("all-MiniLM-L6-v2", backend="onnx", cache_dir=tmp_path)
    assert isinstance(model, OnnxEmbedder) and exportable(model.path)
    odd = tmp_path / "cls-pooled"
    (odd / "1_Pooling").mkdir(parents=True)
    (odd / "modules.json").write_text('[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},'
                                      ' {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]')
    (odd / "1_Pooling" / "config.json").write_text('{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}')
    (odd / "tokenizer.json").write_text("{}")
    assert not exportable(odd)  # CLS pooling is not what the exported graph computes
    from mnemo.errors import ConfigError

    with pytest.raises(ConfigError, match="backend"):
        make_embedder("all-MiniLM-L6-v2", backend="tensorflow")


def test_the_engine_uses_onnx_and_its_model_cache(home: Path, model_cache: Path) -> None:
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo

    with Mnemo(load_settings(home=home)) as m:
        assert isinstance(m.core.embedder, OnnxEmbedder) and m.core.embedder.cache_dir == model_cache
        r = m.save("Alice moved the billing service to PostgreSQL.")
        hits = m.recall("which database does billing use", k=3, touch=False)
        assert hits and hits[0].id == r.memory.id
    assert not (home / "models").exists()  # the configured cache, not the home, holds the export


def test_a_bad_backend_setting_is_refused_when_read() -> None:
    r = run_cli("config", "show", "--json", env={"MNEMO_EMBEDDING_BACKEND": "tensorflow"})
    assert r.returncode == 1 and not r.stdout
    assert "embedding.backend" in r.stderr and "onnx, torch" in r.stderr
