"""Models passed through onnxruntime's transformer optimizer, as Optimum and
onnxruntime's tools ship them: a BERT-shaped and a MiniLM-shaped encoder
(transformers' BertModel with random weights, eager attention, exported by
torch) whose optimized graphs hold com.microsoft EmbedLayerNormalization,
Attention, SkipLayerNormalization and BiasGelu, compiled by onnxc and compared
with onnxruntime on the same optimized model (float32: 1e-4 absolute on
values of order 1), at two batch and sequence sizes, with padding in the
attention mask."""

from __future__ import annotations

import collections
from pathlib import Path

import numpy as np
import onnx
import pytest

import onnxc

pytest.importorskip("torch")
pytest.importorskip("transformers")

SHAPES = {
    "bert": {"hidden": 64, "layers": 2, "heads": 4, "ffn": 128},
    "minilm": {"hidden": 48, "layers": 3, "heads": 12, "ffn": 96},
}
"""Small widths of the two families (BERT-base is 768/12/12, MiniLM-L6
384/6/12): the graph patterns are the same; the sizes keep the test fast."""

VOCAB = 500


def _optimized(name: str, folder: Path) -> onnx.ModelProto:
    import torch
    from onnxruntime.transformers import optimizer
    from transformers import BertConfig, BertModel

    shape = SHAPES[name]
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=VOCAB,
        hidden_size=shape["hidden"],
        num_hidden_layers=shape["layers"],
        num_attention_heads=shape["heads"],
        intermediate_size=shape["ffn"],
        max_position_embeddings=64,
    )
    config._attn_implementation = "eager"  # the pattern the optimizer fuses into Attention
    bert = BertModel(config).eval()

    class Outputs(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(
            self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor
        ) -> tuple[torch.Tensor, torch.Tensor]:
            out = self.bert(input_ids=ids, attention_mask=mask, token_type_ids=types)
            return out.last_hidden_state, out.pooler_output

    example = (torch.zeros((1, 8), dtype=torch.int64),) * 3
    names = ["input_ids", "attention_mask", "token_type_ids"]
    plain = folder / f"{name}.onnx"
    torch.onnx.export(
        Outputs(),
        example,
        str(plain),
        input_names=names,
        output_names=["last_hidden_state", "pooler_output"],
        dynamic_axes={n: {0: "batch", 1: "sequence"} for n in names},
        opset_version=17,
        dynamo=False,
    )
    optimized = optimizer.optimize_model(
        str(plain),
        model_type="bert",
        num_heads=shape["heads"],
        hidden_size=shape["hidden"],
        opt_level=0,
    )
    return optimized.model


def _feeds(batch: int, sequence: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(batch * 100 + sequence)
    mask = np.ones((batch, sequence), np.int64)
    mask[-1, sequence // 2 :] = 0  # the last row padded
    return {
        "input_ids": rng.integers(0, VOCAB, (batch, sequence)).astype(np.int64),
        "attention_mask": mask,
        "token_type_ids": (rng.random((batch, sequence)) < 0.5).astype(np.int64),
    }


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_matches_onnxruntime(name: str, tmp_path: Path) -> None:
    import onnxruntime as ort

    model = _optimized(name, tmp_path)
    fused = collections.Counter(n.op_type for n in model.graph.node if n.domain == "com.microsoft")
    assert {"Attention", "EmbedLayerNormalization", "SkipLayerNormalization"} <= set(fused)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    compiled = onnxc.compile(model)
    for batch, sequence in [(1, 8), (3, 13)]:
        feeds = _feeds(batch, sequence)
        want = session.run(None, feeds)
        got = compiled.run(feeds)
        for (output, value), expected in zip(got.items(), want, strict=True):
            np.testing.assert_allclose(value, np.asarray(expected), atol=1e-4, err_msg=output)
