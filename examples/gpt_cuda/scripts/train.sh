#!/usr/bin/env bash
# Multi-GPU training of the tiny GPT with torchrun on one node.
#
#   NUM_GPUS=4 scripts/train.sh --steps 500 --amp
#
# Extra arguments are passed to train.py.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

NUM_GPUS="${NUM_GPUS:-8}"
OUT_DIR="${OUT_DIR:-out/run_$(date +%Y%m%d_%H%M%S)}"

export CUDA_VISIBLE_DEVICES="${CUDA_VISIBLE_DEVICES:-0,1,2,3,4,5,6,7}"
export NCCL_DEBUG="${NCCL_DEBUG:-WARN}"
export NCCL_IB_DISABLE="${NCCL_IB_DISABLE:-0}"
export NCCL_SOCKET_IFNAME="${NCCL_SOCKET_IFNAME:-eth0}"
export NCCL_ASYNC_ERROR_HANDLING=1
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-4}"

if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
else
  echo "warning: nvidia-smi not found; is the NVIDIA driver installed?" >&2
fi

mkdir -p "${OUT_DIR}"
torchrun \
  --standalone \
  --nnodes=1 \
  --nproc_per_node="${NUM_GPUS}" \
  train.py \
  --device cuda \
  --amp \
  --attn-backend flash \
  --out-dir "${OUT_DIR}" \
  "$@" 2>&1 | tee "${OUT_DIR}/train.log"
