#pragma once
// In a PyTorch tree this path holds csrc/torch_glue/xpu.h.
#include "torch_glue/xpu.h"
