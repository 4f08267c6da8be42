# Shared by scripts/test, scripts/demo and scripts/bench: package installation
# (only what dpkg says is missing; sudo only when not root) and timed phases.
AXLE_PACKAGES=(meson ninja-build pkg-config cmake g++ python3 libboost-dev libspdlog-dev libfmt-dev
               nlohmann-json3-dev doctest-dev python3-dev pybind11-dev python3-numpy python3-pytest libdlpack-dev
               libdnnl-dev ocl-icd-opencl-dev)
# The test suite also needs PyTorch 1.13, the oracle of the differential suite.
AXLE_TEST_PACKAGES=(python3-torch)

ensure_packages() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -eq 0 ]; then echo "all packages present"; return 0; fi
  echo "installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

phase() {
  local name=$1; shift
  local start=$SECONDS
  echo "=== [$name] $*"
  "$@"
  local rc=$?
  echo "=== [$name] done in $((SECONDS - start)) s (exit $rc)"
  PHASE_TIMES+=("$(printf '%-28s %5d s' "$name" $((SECONDS - start)))")
  return $rc
}

print_phase_times() {
  echo "=== phase times"
  for t in "${PHASE_TIMES[@]}"; do echo "  $t"; done
}

# The CUDA toolkit lives outside PATH on these machines (/usr/local/cuda, not an
# apt package). cuda_options prints the meson options for the CUDA plugin: built
# for one architecture (sm_80; CI has no GPU, so one is enough to prove it
# compiles) when nvcc exists, else disabled. scripts/gpu-check builds them all.
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  export PATH="$PATH:/usr/local/cuda/bin"
fi
cuda_options() {
  if command -v nvcc >/dev/null; then
    echo "-Dcuda=enabled -Dgpu_archs=-gencode=arch=compute_80,code=sm_80"
  else
    echo "-Dcuda=disabled"
  fi
}

# configure_build DIR [meson options...]: setup once, reconfigure when options change.
configure_build() {
  local dir=$1; shift
  if [ -f "$dir/build.ninja" ]; then
    meson configure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" --libdir=lib "$@"
  fi
}
