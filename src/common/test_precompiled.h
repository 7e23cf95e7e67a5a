// test_precompiled.h — what nearly every test file includes, precompiled once per build
// for all GoogleTest binaries (CMakeLists.txt, gpusweep_test): the library's own set
// (precompiled.h) plus GoogleTest and GoogleMock, whose parsing was more than half of a
// test file's compile time (objective_parser_test.cc: 6.4 s of 10.9 s CPU with
// -fsyntax-only). Third-party and standard headers only, as in precompiled.h.
#pragma once

#include "precompiled.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
