"""Model definitions used by python/export_models.py (random weights only).

- common.py       weight conditioning (random affine norms, BatchNorm statistics
                  calibrated on random inputs) shared by every model
- tv_variants.py  torchvision architectures, full size and narrow variants
- yolo.py         YOLOv8n / YOLO11n-style detector written from the papers/configs
- midas_small.py  MiDaS-small-style depth network (EfficientNet-Lite encoder)
"""
