package extract

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// A job is the work on one file (File, RenderPage): a fresh directory of its own, mode
// 0700, that holds a copy of the file and the images its OCR reads, and is removed
// when the job ends. In the sandbox it is the only host directory a tool sees, and
// only to read; no other job's directory is visible.
type job struct {
	dir string
	// gid is the group of the directory and what this process makes in it: the
	// sandbox's when this process is root (the tools run as that user and read through
	// the group; nothing there is theirs to write, so no process of that user can plant
	// a link this root process would follow), else -1 (this process's user, which the
	// sandbox maps to its own).
	gid int
	// Where and for what confinement the directory of a job made on first need is
	// made (see laterJob).
	tempDir     string
	confinement Confinement
}

// laterJob is a job whose directory is made on first need (see made): File's, whose
// text PDF goes to its tool on standard input and needs none unless a page is read
// by OCR.
func laterJob(tempDir string, c Confinement) *job {
	return &job{gid: -1, tempDir: tempDir, confinement: c}
}

// made makes the job's directory, if it is not made yet.
func (j *job) made() error {
	if j.dir != "" {
		return nil
	}
	n, err := newJob(j.tempDir, j.confinement)
	if err != nil {
		return err
	}
	j.dir, j.gid = n.dir, n.gid
	return nil
}

// newJob makes a job's directory in tempDir (the system's when empty).
func newJob(tempDir string, c Confinement) (*job, error) {
	dir, err := os.MkdirTemp(tempDir, "doceval-job-")
	if err != nil {
		return nil, fmt.Errorf("job directory: %w", err)
	}
	j := &job{dir: dir, gid: -1}
	// The sandbox binds the directory at its own path: an absolute one, without links.
	if abs, err := filepath.Abs(dir); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			j.dir = real
		}
	}
	if c.sandboxed() && os.Geteuid() == 0 {
		j.gid = sandboxUID
	}
	if err := j.share(j.dir); err != nil {
		j.remove()
		return nil, fmt.Errorf("job directory: %w", err)
	}
	return j, nil
}

// mkdir makes a scratch directory in the job's directory, readable by its tools.
func (j *job) mkdir(pattern string) (string, error) {
	if err := j.made(); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(j.dir, pattern)
	if err != nil {
		return "", err
	}
	return dir, j.share(dir)
}

// share lets the job's tools read and traverse dir (this process made it, mode 0700):
// group gid, mode 0750.
func (j *job) share(dir string) error {
	if j.gid < 0 {
		return nil
	}
	if err := os.Chown(dir, -1, j.gid); err != nil {
		return err
	}
	return os.Chmod(dir, 0o750)
}

// create makes a new file in the job's directory that its tools can read (mode 0640,
// group gid, set through the open file); an existing name or link is refused.
func (j *job) create(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o640)
	if err != nil {
		return nil, err
	}
	if j.gid >= 0 {
		if err := f.Chown(-1, j.gid); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// copyIn copies the file at src into the job's directory, for its tools to read; the
// copy's path is returned. An error opening src is returned as it is.
func (j *job) copyIn(src string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	if err := j.made(); err != nil {
		return "", err
	}
	dst := filepath.Join(j.dir, "input")
	out, err := j.create(dst)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, in)
	err = errors.Join(err, out.Close())
	if err != nil {
		return "", fmt.Errorf("copy into the job directory: %w", err)
	}
	return dst, nil
}

func (j *job) remove() {
	if j.dir != "" {
		_ = os.RemoveAll(j.dir)
	}
}

// scratch makes a scratch directory for OCR's images in the file's job.
func (o Options) scratch() (string, error) {
	if o.job == nil {
		return "", errors.New("OCR outside a job")
	}
	return o.job.mkdir("ocr-")
}
