// Command etcd is the upstream etcd server, built from the Go module proxy for the
// HCA lab (Debian's etcd 3.4 is too old for kube-apiserver 1.36 watch progress).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
