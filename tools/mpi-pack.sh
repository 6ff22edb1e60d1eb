#!/bin/sh
# tools/mpi-pack.sh - this machine's OpenMPI run time (Debian's openmpi-bin
# and libopenmpi3, which tools/setup.sh installs) copied into .dev/mpi, for
# a GPU machine that has no MPI: mpirun, the MPI libraries, the components
# a job on one host uses, the help texts, and every library they load
# besides the C library's own. Components for networks between hosts (UCX,
# libfabric, verbs, PSM) are left out: the GPU machine is one host, and
# they would double the size. The tree keeps /usr's layout, so that OpenMPI
# finds its parts by OPAL_PREFIX:
#
#   tools/mpi-pack.sh                       # here, after tools/gpu-pack.sh
#   . .dev/mpi/env.sh                       # there, .dev/mpi carried
#
# gpu-pack.sh with KSPEC_GPU_MPI=1 links the kspec tool with kspec_mpi and
# so with this libmpi; tools/multi_gpu_bench.sh then runs its --mpi rows.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
d="$root/.dev/mpi"
run=$(readlink -f "$(command -v mpirun)") || {
  echo "mpi-pack: no mpirun here (tools/setup.sh installs OpenMPI)" >&2
  exit 1
}
lib=/usr/lib/x86_64-linux-gnu
rm -rf "$d"
mkdir -p "$d/usr/bin" "$d/usr/lib/x86_64-linux-gnu" "$d/usr/share"
cp "$run" "$d/usr/bin/orterun"
ln -s orterun "$d/usr/bin/mpirun"
cp -a /usr/share/openmpi "$d/usr/share/"
cp -a "$lib/openmpi" "$d/usr/lib/x86_64-linux-gnu/"
# PMIx (which mpirun starts its ranks through) loads components from its
# own prefix: a GPU machine with another PMIx there must not lend us its
# components (env.sh points PMIX_INSTALL_PREFIX here)
if [ -d "$lib/pmix2" ]; then
  mkdir -p "$d/usr/lib/x86_64-linux-gnu/pmix2/lib"
  cp -a "$lib/pmix2/lib/pmix" "$d/usr/lib/x86_64-linux-gnu/pmix2/lib/"
  cp -a "$lib/pmix2/share" "$d/usr/lib/x86_64-linux-gnu/pmix2/"
fi
om="$d/usr/lib/x86_64-linux-gnu/openmpi"
rm -rf "$om/include" "$om/lib/pkgconfig" "$om"/lib/*.mod "$om"/lib/libmpi_java* \
  "$om"/lib/liboshmem* "$om"/lib/libmpi_usempi* "$om"/lib/libmpi_mpifh* \
  "$om"/lib/openmpi3/mca_*oshmem* "$om"/lib/openmpi3/mca_spml_* \
  "$om"/lib/openmpi3/mca_sshmem_* "$om"/lib/openmpi3/mca_scoll_* \
  "$om"/lib/openmpi3/mca_atomic_*
net='libuc[mpst]|libfabric|libibverbs|librdmacm|libpsm|libinfinipath|libefa'
for f in "$om"/lib/openmpi3/*.so "$om"/lib/libmca_common_*; do
  if ldd "$f" 2>/dev/null | grep -Eq "$net"; then rm -f "$f"; fi
done
# what all that loads, but the C library (the GPU machine's glibc is the
# one the kspec pack runs on already)
find "$d/usr/bin" "$om" -type f \( -name '*.so*' -o -perm -u+x \) |
  while read -r f; do ldd "$f" 2>/dev/null; done |
  awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux-x86-64)\.so' |
  grep -v "/openmpi/" |
  while read -r f; do cp -L "$f" "$d/usr/lib/x86_64-linux-gnu/"; done
cat >"$d/env.sh" <<'EOF'
# . .dev/mpi/env.sh: this OpenMPI, wherever the tree now lies
OPAL_PREFIX=$(cd "$(dirname "${KSPEC_MPI_ENV:-.dev/mpi/env.sh}")" && pwd)/usr
PATH=$OPAL_PREFIX/bin:$PATH
LD_LIBRARY_PATH=$OPAL_PREFIX/lib/x86_64-linux-gnu/openmpi/lib:$OPAL_PREFIX/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PMIX_INSTALL_PREFIX=$OPAL_PREFIX/lib/x86_64-linux-gnu/pmix2
PMIX_MCA_mca_base_component_path=$PMIX_INSTALL_PREFIX/lib/pmix
OMPI_MCA_btl=self,vader
OMPI_MCA_pml=ob1
export OPAL_PREFIX PATH LD_LIBRARY_PATH PMIX_INSTALL_PREFIX \
  PMIX_MCA_mca_base_component_path OMPI_MCA_btl OMPI_MCA_pml
EOF
du -sh "$d"
