# Fixture trees for the `perfkit gpu` shell tests (sourced after tap-lib.bash).
#
# A tree DIR holds DIR/proc (what --proc-root reads) and DIR/sys (--sys-root):
#   DIR/proc/devices                 "Character devices:" with drm 226 and accel 261
#   DIR/proc/PID/stat                "PID (COMM) S PPID ..."
#   DIR/proc/PID/fd/N -> TARGET      a symlink; DRM fds point at /dev/dri/renderD128 and
#                                    the like, which perfkit recognizes by name when the
#                                    link cannot be followed (no GPU on the test machine)
#   DIR/proc/PID/fdinfo/N            the fdinfo text
#   DIR/sys/class/drm/NODE/dev       "226:MINOR", NODE/device -> the device directory
#   DIR/sys/devices/pci0000:00/PDEV/{vendor,device,...}, driver -> drivers/DRIVER

# gpu_tree DIR: an empty tree
gpu_tree() {
	mkdir -p "$1/proc" "$1/sys/class/drm" "$1/sys/class/accel" "$1/sys/bus/pci/drivers"
	printf 'Character devices:\n  1 mem\n  4 /dev/vc/0\n226 drm\n261 accel\n\nBlock devices:\n  8 sd\n' \
		>"$1/proc/devices"
}

# gpu_proc DIR PID COMM [PPID]: a process with no fds yet
gpu_proc() {
	mkdir -p "$1/proc/$2/fd" "$1/proc/$2/fdinfo"
	printf '%s (%s) S %s %s %s 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n' \
		"$2" "$3" "${4:-1}" "$2" "$2" >"$1/proc/$2/stat"
}

# gpu_fd DIR PID FD TARGET: an fd linking to TARGET, fdinfo text from stdin
gpu_fd() {
	ln -sfn "$4" "$1/proc/$2/fd/$3"
	cat >"$1/proc/$2/fdinfo/$3"
}

# gpu_other_fds DIR PID N: N ordinary fds (0..N-1) that are not DRM
gpu_other_fds() {
	local i
	for i in $(seq 0 $(($3 - 1))); do
		printf 'pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t%s\n' "$i" | gpu_fd "$1" "$2" "$i" "/dev/null"
	done
}

# gpu_pci_dev DIR PDEV DRIVER VENDOR DEVICE NODE...: a PCI GPU with its DRM nodes
# (card0 -> minor 0, renderD128 -> minor 128)
gpu_pci_dev() {
	local dir=$1 pdev=$2 driver=$3 vendor=$4 device=$5 node minor
	local d="$dir/sys/devices/pci0000:00/$pdev"
	shift 5
	mkdir -p "$d" "$dir/sys/bus/pci/drivers/$driver"
	printf '%s\n' "$vendor" >"$d/vendor"
	printf '%s\n' "$device" >"$d/device"
	printf '0x0000\n' >"$d/subsystem_vendor"
	printf '0x0000\n' >"$d/subsystem_device"
	printf '0x00\n' >"$d/revision"
	ln -sfn "../../../bus/pci/drivers/$driver" "$d/driver"
	for node in "$@"; do
		minor=${node##*[a-zA-Z]}
		mkdir -p "$d/drm/$node"
		printf '226:%s\n' "$minor" >"$d/drm/$node/dev"
		ln -sfn "../.." "$d/drm/$node/device"
		ln -sfn "../../devices/pci0000:00/$pdev/drm/$node" "$dir/sys/class/drm/$node"
	done
}
