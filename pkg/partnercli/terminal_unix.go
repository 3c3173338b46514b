//go:build linux || darwin

package partnercli

import (
	"os"
	"syscall"
	"unsafe"
)

// termios reads the terminal settings of fd; it fails when fd is not a terminal (a
// file, a pipe, /dev/null).
func termios(fd uintptr) (*syscall.Termios, error) {
	var t syscall.Termios
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, ioctlGetTermios, uintptr(unsafe.Pointer(&t))); errno != 0 {
		return nil, errno
	}
	return &t, nil
}

func setTermios(fd uintptr, t *syscall.Termios) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, ioctlSetTermios, uintptr(unsafe.Pointer(t))); errno != 0 {
		return errno
	}
	return nil
}

func isTerminalFile(f *os.File) bool {
	_, err := termios(f.Fd())
	return err == nil
}

// echoOff turns off echoing on the terminal f and returns what turns it on again.
func echoOff(f *os.File) (restore func(), err error) {
	fd := f.Fd()
	old, err := termios(fd)
	if err != nil {
		return nil, err
	}
	quiet := *old
	quiet.Lflag &^= syscall.ECHO
	quiet.Lflag |= syscall.ICANON | syscall.ISIG
	if err := setTermios(fd, &quiet); err != nil {
		return nil, err
	}
	return func() { _ = setTermios(fd, old) }, nil
}
