# Shared by scripts/test, scripts/demo and scripts/bench: package installation
# (only what dpkg says is missing; sudo only when not root) and timed phases.
AXLE_PACKAGES=(meson ninja-build pkg-config cmake g++ python3 libboost-dev libspdlog-dev libfmt-dev
               nlohmann-json3-dev doctest-dev python3-dev pybind11-dev python3-numpy python3-pytest libdlpack-dev
               libdnnl-dev ocl-icd-opencl-dev)
# The test suite also needs PyTorch 1.13, the oracle of the differential suite,
# and clang-format, which the format test runs over the tree.
AXLE_TEST_PACKAGES=(python3-torch clang-format)

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

# The Debian packages a machine without apt access (the lent GPU machines:
# nothing outside them can be reached) needs to build and test axle with the
# CUDA plugin: header-only and small libraries, fetched here by
# scripts/gpu-bundle into .gpu-deps/ and unpacked there by use_deb_bundle.
# oneDNN stays out (the cpu plugin is not what a GPU run checks); pybind11 is
# taken from the machine's Python when it has it (the Debian one predates
# Python 3.12).
AXLE_GPU_BUNDLE_DEBS=(libboost1.74-dev libboost-system1.74.0 libspdlog-dev libspdlog1.10 libfmt-dev libfmt9 nlohmann-json3-dev
                      doctest-dev libdlpack-dev pybind11-dev)

# use_deb_bundle DEBDIR PREFIX: unpacks every .deb of DEBDIR under PREFIX (never
# over /), points pkg-config, CMake, Boost, the compiler and the loader at it,
# and exports AXLE_BUNDLE_OPTIONS (meson options for what the bundle lacks).
use_deb_bundle() {
  local debs=$1 root=$2
  rm -rf "$root" && mkdir -p "$root" || return 1
  local f
  for f in "$debs"/*.deb; do
    f=$(readlink -f "$f")  # absolute: the ar fallback works in another folder
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$f" "$root" || return 1
    else  # ar + tar: a .deb is an ar archive holding data.tar.*
      local tmp
      tmp=$(mktemp -d) || return 1
      (cd "$tmp" && ar x "$f" && tar -xf data.tar.* -C "$root") || { rm -rf "$tmp"; return 1; }
      rm -rf "$tmp"
    fi
    echo "unpacked $(basename "$f")"
  done
  local usr="$root/usr" lib="$root/usr/lib/x86_64-linux-gnu"
  # Debian's .pc files name /usr: make them name the bundle.
  for f in "$lib"/pkgconfig/*.pc "$usr"/share/pkgconfig/*.pc; do
    [ -f "$f" ] && sed -i -E "s#(=|-I|-L)/usr/#\1$usr/#g; s#^prefix=/usr\$#prefix=$usr#" "$f"
  done
  local pc="$lib/pkgconfig:$usr/share/pkgconfig"
  # A newer pybind11 from the machine's Python first (3.12 needs >= 2.11).
  local pyb
  if pyb=$(python3 -m pybind11 --pkgconfigdir 2>/dev/null) && [ -d "$pyb" ]; then pc="$pyb:$pc"; fi
  export PKG_CONFIG_PATH="$pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export CMAKE_PREFIX_PATH="$usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export BOOST_INCLUDEDIR="$usr/include" BOOST_LIBRARYDIR="$lib"  # Meson wants both
  export CPATH="$usr/include${CPATH:+:$CPATH}"
  export LIBRARY_PATH="$lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  AXLE_BUNDLE_OPTIONS="-Donednn=disabled"
  echo "bundle under $root: PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
}

# cuda_with_cudnn ROOT: when the CUDA toolkit's own folders lack cuDNN but the
# machine has it elsewhere (system-wide, as Ubuntu's cudnn packages put it under
# /usr/include/x86_64-linux-gnu and /usr/lib/x86_64-linux-gnu, or in the Python's
# nvidia-cudnn wheel), builds ROOT: the toolkit's folders as links plus cuDNN's
# headers and libraries, and exports CUDA_PATH (Meson's cuda dependency looks
# only there for the cudnn module) and LD_LIBRARY_PATH. No-op otherwise.
cuda_with_cudnn() {
  local root=$1 cuda
  cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
  if [ -f "$cuda/include/cudnn.h" ] && compgen -G "$cuda/lib64/libcudnn.so*" >/dev/null; then
    echo "cuDNN in the toolkit: $cuda"; return 0
  fi
  local inc="" lib="" d
  for d in /usr/include /usr/include/x86_64-linux-gnu; do
    [ -f "$d/cudnn.h" ] && { inc=$d; break; }
  done
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
    compgen -G "$d/libcudnn.so*" >/dev/null && { lib=$d; break; }
  done
  if [ -z "$inc" ] || [ -z "$lib" ]; then
    local wheel
    wheel=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null) || wheel=""
    if [ -z "$wheel" ] || [ ! -f "$wheel/include/cudnn.h" ]; then
      echo "no cuDNN in $cuda, system-wide nor in the Python's nvidia-cudnn wheel"
      return 0
    fi
    inc=$wheel/include lib=$wheel/lib
  fi
  cuda_root_with_cudnn "$root" "$cuda" "$inc" "$lib" || return 1
  export CUDA_PATH="$root" CUDA_HOME="$root" CUDA_ROOT="$root"  # Meson reads all three
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "cuDNN headers $inc, libraries $lib, toolkit $cuda: CUDA_PATH=$root"
}

# cuda_root_with_cudnn ROOT CUDA INC LIB: ROOT mirrors the toolkit CUDA (links)
# with cuDNN's headers from INC and libraries from LIB added, in both layouts
# Meson reads: targets/<arch>-linux/{include,lib} (Meson >= 1.9) and
# include/ + lib64/ (older Meson) name the same two folders.
cuda_root_with_cudnn() {
  local root=$1 cuda=$2 inc=$3 lib=$4 target
  target=targets/$(uname -m)-linux
  rm -rf "$root" && mkdir -p "$root/$target/include" "$root/$target/lib" || return 1
  local had_nullglob=0 e rc=0
  shopt -q nullglob && had_nullglob=1
  shopt -s nullglob
  for e in "$cuda"/*; do
    case "$(basename "$e")" in include|lib|lib64|targets) ;; *) ln -s "$e" "$root/" || rc=1 ;; esac
  done
  for e in "$cuda/$target"/*; do
    case "$(basename "$e")" in include|lib) ;; *) ln -s "$e" "$root/$target/" || rc=1 ;; esac
  done
  ln -s "$target/include" "$root/include" && ln -s "$target/lib" "$root/lib64" && ln -s "$target/lib" "$root/lib" || rc=1
  local cinc clib
  cinc=$(readlink -f "$cuda/include") clib=$(readlink -f "$cuda/lib64")
  for e in "$cinc"/* "$inc"/cudnn*.h; do ln -sf "$e" "$root/$target/include/" || rc=1; done
  for e in "$clib"/* "$lib"/libcudnn*; do ln -sf "$e" "$root/$target/lib/" || rc=1; done
  for e in "$lib"/libcudnn*.so.*; do  # wheels have only versioned names
    local base=${e##*/}
    [ -e "$root/$target/lib/${base%%.so.*}.so" ] || ln -s "$e" "$root/$target/lib/${base%%.so.*}.so" || rc=1
  done
  [ "$had_nullglob" = 1 ] || shopt -u nullglob
  [ "$rc" = 0 ] || echo "cuda_root_with_cudnn: could not link everything into $root"
  return $rc
}
