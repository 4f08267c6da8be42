// AXLE_API marks the public C++ API of libaxle; everything else is hidden.
#pragma once

#if defined(AXLE_BUILDING_LIBRARY)
#define AXLE_API __attribute__((visibility("default")))
#else
#define AXLE_API
#endif
