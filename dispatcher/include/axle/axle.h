// The one header an application includes: tensors, ops, dispatcher, config, autograd.
#pragma once

#include <axle/autograd.h>
#include <axle/compare.h>
#include <axle/config.h>
#include <axle/device.h>
#include <axle/device_runtime.h>
#include <axle/dispatcher.h>
#include <axle/dtype.h>
#include <axle/error.h>
#include <axle/library.h>
#include <axle/logging.h>
#include <axle/ops.h>
#include <axle/parity.h>
#include <axle/serialization.h>
#include <axle/stream.h>
#include <axle/tensor.h>
#include <axle/trace.h>
