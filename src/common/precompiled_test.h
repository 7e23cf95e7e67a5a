// precompiled_test.h — precompiled.h plus GoogleTest and GoogleMock, for the tests
// (CMakeLists.txt, GPUSWEEP_PCH): gtest.h and gmock.h are the heaviest headers a test
// file parses.
#pragma once

#include "precompiled.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
