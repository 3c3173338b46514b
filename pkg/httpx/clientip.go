package httpx

import (
	"net"
	"net/netip"

	"github.com/labstack/echo/v4"
)

// IPExtractor says where a request comes from (echo's RealIP, which the
// InvalidKeyLimiter keys on and traces record): the TCP peer, unless the peer is one of
// proxies; then X-Forwarded-For read from the right, skipping trusted hops. Echo's
// default would believe X-Forwarded-For from anyone, which a client can forge.
func IPExtractor(proxies []netip.Prefix) echo.IPExtractor {
	if len(proxies) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range proxies {
		opts = append(opts, echo.TrustIPRange(&net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}
