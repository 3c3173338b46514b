package extract

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// A job is the work on one file (File, RenderPage): a fresh directory of its own, mode
// 0700, that holds a copy of the file and the images its OCR reads, and is removed
// when the job ends. In the sandbox it is the only host directory a tool sees, and
// only to read; no other job's directory is visible.
type job struct {
	dir string
	// uid and gid own the directory and what this process makes in it: the sandbox's
	// user when this process is root (the tools run as that user), else -1 (this
	// process's user, which the sandbox maps to its own).
	uid, gid int
}

// newJob makes a job's directory in tempDir (the system's when empty).
func newJob(tempDir string, c Confinement) (*job, error) {
	dir, err := os.MkdirTemp(tempDir, "doceval-job-")
	if err != nil {
		return nil, fmt.Errorf("job directory: %w", err)
	}
	j := &job{dir: dir, uid: -1, gid: -1}
	// The sandbox binds the directory at its own path: an absolute one, without links.
	if abs, err := filepath.Abs(dir); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			j.dir = real
		}
	}
	if c.sandboxed() && os.Geteuid() == 0 {
		j.uid, j.gid = sandboxUID, sandboxUID
	}
	if err := os.Chown(j.dir, j.uid, j.gid); err != nil {
		j.remove()
		return nil, fmt.Errorf("job directory: %w", err)
	}
	return j, nil
}

// mkdir makes a scratch directory in the job's directory, readable by its tools.
func (j *job) mkdir(pattern string) (string, error) {
	dir, err := os.MkdirTemp(j.dir, pattern)
	if err != nil {
		return "", err
	}
	return dir, os.Chown(dir, j.uid, j.gid)
}

// copyIn copies the file at src into the job's directory, for its tools to read; the
// copy's path is returned. An error opening src is returned as it is.
func (j *job) copyIn(src string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	dst := filepath.Join(j.dir, "input")
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, in)
	err = errors.Join(err, out.Close(), os.Chown(dst, j.uid, j.gid))
	if err != nil {
		return "", fmt.Errorf("copy into the job directory: %w", err)
	}
	return dst, nil
}

func (j *job) remove() { _ = os.RemoveAll(j.dir) }

// scratch makes a scratch directory for OCR's images in the file's job.
func (o Options) scratch() (string, error) {
	if o.job == nil {
		return "", errors.New("OCR outside a job")
	}
	return o.job.mkdir("ocr-")
}
