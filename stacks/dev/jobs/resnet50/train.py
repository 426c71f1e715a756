"""Example Batch AI job script of the dev stack (experiment resnet50 on cluster gpu-nc6).

stackwarden's artifact gate scans it with the signature rules in stacks/dev/signatures before
anything ships (stackwarden:artifacts in stacks/Pulumi.dev.yaml). It is clean: no rule matches it.
"""

import argparse
import os


def main() -> None:
    parser = argparse.ArgumentParser(description="train resnet50 on the mounted dataset")
    parser.add_argument("--data", default=os.environ.get("AZ_BATCHAI_INPUT_DATASET", "/mnt/datasets/imagenet"))
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args()
    output = os.environ.get("AZ_BATCHAI_OUTPUT_MODEL", "/mnt/outputs/model")
    print(f"training resnet50 on {args.data} for {args.epochs} epochs (batch {args.batch_size}); model to {output}")


if __name__ == "__main__":
    main()
