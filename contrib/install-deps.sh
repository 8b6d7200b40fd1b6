#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs everything stencilmap needs to build, test and run on Debian 12.
# A fresh machine starts bare, so both README commands call this first.
# Skips apt entirely when every package is already installed.
set -euo pipefail

packages=(
    build-essential autoconf automake libtool pkg-config
    libjansson-dev libcmocka-dev libhwloc-dev libscotch-dev
    libyaml-dev                 # topology/: Slurm's topology.yaml
    slurm-wlm libslurm-dev munge libpmix-dev
    openmpi-bin libopenmpi-dev
    mpich libmpich-dev          # tests/launchers: MPICH's mpiexec (Hydra) and mpicc.mpich
    gfortran                    # tests/mpix: mpifort's compiler, for the Fortran MPI_CART_CREATE caller
    python3 util-linux iproute2 procps
    strace clang libclang-rt-14-dev
    librsvg2-bin  # rsvg-convert: the tests render the audit pictures to PNG
    debhelper dpkg-dev lintian  # tests/package: the .deb packages, built and checked
    rpm                         # tests/package/rpm.sh: rpmbuild of contrib/rpm/stencilmap.spec
    lammps                      # tests/app: a real MPI code, profiled, learned and placed
    gromacs                     # tests/app: gmx_mpi, whose MPI_Cart_create(reorder=1) the preload library reorders
    libsimgrid-dev time python3-numpy python3-scipy  # SMPI, /usr/bin/time, fluid.py: the scale bench and its check (tests/bench/test_scale.sh)
    python3-pytest python3-pexpect python3-requests expect  # tests/slurm-suite: Slurm's own testsuite
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages present"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: need root to install: ${missing[*]}" >&2
    exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${packages[@]}"
