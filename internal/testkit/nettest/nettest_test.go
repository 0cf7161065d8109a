package nettest

import (
	"net"
	"testing"
	"time"
)

func TestRefusedAndSilent(t *testing.T) {
	if c, err := net.DialTimeout("tcp", Refused(t), time.Second); err == nil {
		c.Close()
		t.Error("dialing Refused's address succeeded")
	}
	c, err := net.DialTimeout("tcp", Silent(t), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Errorf("Silent's connection answered %d bytes", n)
	}
	if p, err := FreePort(); err != nil || p <= 0 {
		t.Errorf("FreePort() = %d, %v", p, err)
	}
}
