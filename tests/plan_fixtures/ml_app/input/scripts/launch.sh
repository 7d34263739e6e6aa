#!/bin/sh
export NCCL_SOCKET_IFNAME=eth0
torchrun --nproc_per_node 2 train.py
