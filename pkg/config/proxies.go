package config

import (
	"fmt"
	"net/netip"
	"strings"
)

// ParseProxies reads a setting naming trusted reverse proxies (DOCEVAL_TRUSTED_PROXIES,
// DOCEVAL_CONSOLE_TRUSTED_PROXIES): comma-separated CIDRs or addresses.
func ParseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			out = append(out, p.Masked())
		} else if a, err := netip.ParseAddr(part); err == nil && a.Zone() == "" {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		} else {
			return nil, fmt.Errorf("%q is neither a CIDR nor an address", part)
		}
	}
	return out, nil
}
