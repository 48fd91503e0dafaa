// Shared by the kernel file and the app: pixels of a row each program of the edges kernel covers.
#pragma once

constexpr int kEdgesBlock = 256;
