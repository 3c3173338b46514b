package partnercli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
)

// configFile is the CLI's settings file: one profile per deployment and key. It holds
// API keys, so it is written with mode 0600 in a directory of mode 0700.
type configFile struct {
	Profiles map[string]*profile `json:"profiles"`
}

type profile struct {
	BaseURL string `json:"base_url,omitempty"`
	APIKey  string `json:"api_key,omitempty"`
	// Listen is `doceval listen`'s state for this profile.
	Listen *listenState `json:"listen,omitempty"`
}

// listenState is where `doceval listen` continues and what it signs with.
type listenState struct {
	// Secret signs forwarded events; the partner's receiver verifies with it.
	Secret string `json:"secret,omitempty"`
	// After is the feed position (a next_cursor) listen reads on from; "" is the oldest
	// event kept, nil no position yet.
	After *string `json:"after,omitempty"`
	// Forwarded are the ids of events after After already acknowledged by the receiver.
	// The feed gives a position per page only, while events are acknowledged one by one;
	// after a restart these are skipped instead of being forwarded twice.
	Forwarded []string `json:"forwarded,omitempty"`
}

const defaultProfile = "default"

// profileName is --profile, else $DOCEVAL_PROFILE, else "default".
func (a *app) profileName() string {
	return firstNonEmpty(a.global.profile, a.env("DOCEVAL_PROFILE"), defaultProfile)
}

// configPath is $DOCEVAL_CONFIG, else config.json in $XDG_CONFIG_HOME/doceval, else in
// ~/.config/doceval (on Windows %AppData%\doceval). ours says the directory belongs to
// the CLI, so its mode may be tightened. "" means there is no place for one.
func (a *app) configPath() (path string, ours bool) {
	if p := a.env("DOCEVAL_CONFIG"); p != "" {
		return p, false
	}
	dir := a.env("XDG_CONFIG_HOME")
	if dir == "" && a.env("HOME") != "" {
		dir = filepath.Join(a.env("HOME"), ".config")
	}
	if dir == "" && runtime.GOOS == "windows" {
		dir = a.env("AppData")
	}
	if dir == "" {
		return "", false
	}
	return filepath.Join(dir, "doceval", "config.json"), true
}

// loadConfig reads the config file; a missing file is an empty config.
func (a *app) loadConfig() (*configFile, error) {
	cfg := &configFile{Profiles: map[string]*profile{}}
	path, _ := a.configPath()
	if path == "" {
		return cfg, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the config file: %w", err)
	}
	if err := json.Unmarshal(b, cfg); err != nil {
		return nil, fmt.Errorf("config file %s is not valid JSON: %w", path, err)
	}
	if cfg.Profiles == nil {
		cfg.Profiles = map[string]*profile{}
	}
	return cfg, nil
}

// updateConfig reads the config, lets change edit it and writes it back atomically
// (a temporary file renamed over the old one), so a crash never leaves half a file and
// another command's change made in between is not lost.
func (a *app) updateConfig(change func(*configFile) error) error {
	path, ours := a.configPath()
	if path == "" {
		return errors.New("no place for the config file: set HOME, XDG_CONFIG_HOME or DOCEVAL_CONFIG")
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	if err := change(cfg); err != nil {
		return err
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the config directory: %w", err)
	}
	if ours {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("protect the config directory: %w", err)
		}
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// writeFileAtomic writes b to path with mode 0600 through a renamed temporary file.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.tmp")
	if err != nil {
		return fmt.Errorf("write the config file: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		tmp.Close()
		return fmt.Errorf("protect the config file: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write the config file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write the config file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the config file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write the config file: %w", err)
	}
	return nil
}

// profileOf returns the named profile, created when missing.
func (cfg *configFile) profileOf(name string) *profile {
	p := cfg.Profiles[name]
	if p == nil {
		p = &profile{}
		cfg.Profiles[name] = p
	}
	return p
}

func (cfg *configFile) names() []string {
	names := make([]string, 0, len(cfg.Profiles))
	for name := range cfg.Profiles {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
