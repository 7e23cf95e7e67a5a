// The translation unit that builds a precompiled header (CMakeLists.txt, GPUSWEEP_PCH).
