"""TorchScript (dynamo=False) exports of torchvision's control flow, for tools/modern_corpus/generate.py.

Runs in tools/modern_corpus/.venv-ts (torch 1.13.1, torchvision 0.14.1: the versions Debian 12 ships, and the last
TorchScript exporter that exports a scripted batched_nms; torch 2.15's fails with "Cannot determine scalar type" on
the If it writes). Writes STAGE/<stem>.onnx and STAGE/<stem>.json (source and exporter), nothing else; the judging is
generate.py's, with the newest onnx and ONNX Runtime.

Usage: .venv-ts/bin/python export_torchscript.py STAGE
"""

import os
import sys
import warnings

import torch
import torchvision
from torchvision.models.detection import FasterRCNN
from torchvision.models.detection.anchor_utils import AnchorGenerator
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead
from torchvision.ops import MultiScaleRoIAlign

warnings.filterwarnings("ignore")
from staging import stage_export  # noqa: E402

STAGE = sys.argv[1]
os.makedirs(STAGE, exist_ok=True)
EXPORTER = {"torch": torch.__version__, "torchvision": torchvision.__version__, "exporter": "torch.onnx TorchScript"}


class BatchedNms(torch.nn.Module):
    """torchvision.ops.batched_nms alone. Traced: torchvision scripts its coordinate trick when tracing
    (_script_if_tracing), so that function's Python if is written as an ONNX If. Scripting the whole module
    instead fails in the exporter ("Cannot determine scalar type" on an If of _batched_nms_vanilla)."""

    def forward(self, boxes, scores, idxs):
        return torchvision.ops.batched_nms(boxes, scores, idxs, 0.5)


class TinyBackbone(torch.nn.Module):
    """Two strided convolutions: a backbone small enough for a detector under 2 MiB."""

    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, stride=2, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(8, 8, 3, stride=2, padding=1), torch.nn.ReLU())
        self.out_channels = 8

    def forward(self, x):
        return self.body(x)


def tiny_faster_rcnn():
    torch.manual_seed(0)
    anchors = AnchorGenerator(sizes=((16, 32),), aspect_ratios=((0.5, 1.0, 2.0),))
    pool = MultiScaleRoIAlign(featmap_names=["0"], output_size=7, sampling_ratio=2)
    return FasterRCNN(TinyBackbone(), rpn_anchor_generator=anchors, box_roi_pool=pool,
                      box_head=TwoMLPHead(8 * 7 * 7, 32), box_predictor=FastRCNNPredictor(32, 3),
                      min_size=64, max_size=64, rpn_pre_nms_top_n_test=50, rpn_post_nms_top_n_test=20,
                      box_detections_per_img=10).eval()


def save(stem, source, opset, export):
    meta = {"stem": stem, "source": source, "exporter": dict(EXPORTER, opset=opset)}
    stage_export(STAGE, stem, meta, lambda path: export(path, opset))

def export_nms(path, opset):
    boxes = torch.rand(10, 4)
    boxes[:, 2:] += boxes[:, :2]
    torch.onnx.export(BatchedNms(), (boxes, torch.rand(10), torch.randint(0, 3, (10,))), path,
                      opset_version=opset, input_names=["boxes", "scores", "idxs"], output_names=["keep"],
                      dynamic_axes={"boxes": {0: "n"}, "scores": {0: "n"}, "idxs": {0: "n"}, "keep": {0: "k"}})


def export_frcnn(path, opset):
    model = tiny_faster_rcnn()
    torch.onnx.export(model, ([torch.rand(3, 64, 64)],), path, opset_version=opset, input_names=["image"],
                      output_names=["boxes", "labels", "scores"],
                      dynamic_axes={"image": {1: "h", 2: "w"}, "boxes": {0: "d"}, "labels": {0: "d"}, "scores": {0: "d"}})


for opset in (11, 13, 17, 18):
    save(f"ts_batched_nms_opset{opset}", {"architecture": "torchvision.ops.batched_nms alone (its coordinate trick scripted by torchvision)",
                                           "config": "iou_threshold 0.5"}, opset, export_nms)
for opset in (11, 17, 18):
    save(f"ts_fasterrcnn_tiny_opset{opset}",
         {"architecture": "torchvision FasterRCNN (traced; its batched_nms scripted by torchvision)",
          "config": "2-conv backbone (8 channels), anchors (16,32)x3 ratios, TwoMLPHead 392->32, 3 classes, 64x64 images, "
                    "random weights"}, opset, export_frcnn)
