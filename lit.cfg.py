# lit configuration for the compiler's FileCheck tests (dialects/*/test, backends/test).
# Run through CTest, or: lit --param build_dir=build -sv dialects/Tile/test backends/test
import os
import lit.formats

config.name = "Tessera"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
build = os.path.abspath(lit_config.params.get("build_dir", "build"))
config.test_exec_root = os.path.join(build, "lit")
llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-22/bin")
config.environment["PATH"] = os.pathsep.join(
    [os.path.join(build, "bin"), llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.substitutions.append(("%tessera", os.path.join(build, "bin", "tessera")))
