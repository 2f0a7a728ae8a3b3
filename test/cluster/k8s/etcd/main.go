// etcd, built from the same etcd server module that k8s.io/kubernetes itself is tested with.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
