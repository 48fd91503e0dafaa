# Sourced by the GPU test-machine scripts: brings up the NVIDIA Vulkan driver (the loader
# packages in .gpu/debs), makes $out (from $OUT, else ./gpu-out), sends everything printed from
# here on to $out/$1 as well, and prints the date and the GPU.
out=${OUT:-gpu-out}
mkdir -p "$out"
for f in .gpu/debs/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
status=0
exec > >(tee "$out/$1") 2>&1
echo "== $(date -u +%F' '%T) $(nvidia-smi -L 2>/dev/null | head -1)"
