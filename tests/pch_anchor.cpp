// Compiled only to build the test suite's precompiled header (tests/CMakeLists.txt).
