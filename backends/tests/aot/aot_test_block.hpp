// Shared by the kernel file and the program that launches its kernels: elements per program.
#pragma once

constexpr int kAotTestBlock = 128;
