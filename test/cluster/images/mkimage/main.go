// mkimage writes a one-layer OCI image layout as a tar archive, for `ctr images import`: the image
// holds the given files (static binaries) at the root and runs the entrypoint. No registry and no
// base image: the test node cannot pull, so its images are made from this repository's code.
//
//	mkimage -o app.tar -name probe-lint.test/app:1 -entrypoint /app app=/path/to/app
package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int               `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Platform    map[string]string `json:"platform,omitempty"`
}

// A fixed time keeps the images byte-identical from build to build.
var epoch = time.Unix(0, 0)

func main() {
	output := flag.String("o", "", "the tar archive to write")
	name := flag.String("name", "", "the image reference, e.g. probe-lint.test/app:1")
	entrypoint := flag.String("entrypoint", "", "the command the image runs")
	flag.Parse()
	if *output == "" || *name == "" || *entrypoint == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: mkimage -o OUT.tar -name REF -entrypoint /CMD NAME=FILE...")
		os.Exit(2)
	}
	if err := write(*output, *name, *entrypoint, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

func write(output, name, entrypoint string, files []string) error {
	var layer bytes.Buffer
	layerTar := tar.NewWriter(&layer)
	for _, dir := range []string{"tmp/", "etc/"} {
		if err := layerTar.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o1777, ModTime: epoch}); err != nil {
			return err
		}
	}
	for _, spec := range files {
		target, source, ok := strings.Cut(spec, "=")
		if !ok {
			return fmt.Errorf("%q is not NAME=FILE", spec)
		}
		content, err := os.ReadFile(source)
		if err != nil {
			return err
		}
		if err := layerTar.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: target, Mode: 0o755, Size: int64(len(content)), ModTime: epoch}); err != nil {
			return err
		}
		if _, err := layerTar.Write(content); err != nil {
			return err
		}
	}
	if err := layerTar.Close(); err != nil {
		return err
	}

	blobs := map[string][]byte{}
	add := func(mediaType string, content []byte) descriptor {
		sum := sha256.Sum256(content)
		digest := "sha256:" + hex.EncodeToString(sum[:])
		blobs[digest] = content
		return descriptor{MediaType: mediaType, Digest: digest, Size: len(content)}
	}
	layerDescriptor := add("application/vnd.oci.image.layer.v1.tar", layer.Bytes())
	config, _ := json.Marshal(map[string]any{
		"architecture": "amd64",
		"os":           "linux",
		"created":      epoch.UTC().Format(time.RFC3339),
		"config":       map[string]any{"Entrypoint": []string{entrypoint}, "Env": []string{"PATH=/"}},
		"rootfs":       map[string]any{"type": "layers", "diff_ids": []string{layerDescriptor.Digest}},
	})
	configDescriptor := add("application/vnd.oci.image.config.v1+json", config)
	manifest, _ := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        configDescriptor,
		"layers":        []descriptor{layerDescriptor},
	})
	manifestDescriptor := add("application/vnd.oci.image.manifest.v1+json", manifest)
	manifestDescriptor.Platform = map[string]string{"architecture": "amd64", "os": "linux"}
	manifestDescriptor.Annotations = map[string]string{
		"io.containerd.image.name":          name,
		"org.opencontainers.image.ref.name": name[strings.LastIndex(name, ":")+1:],
	}
	index, _ := json.Marshal(map[string]any{"schemaVersion": 2, "manifests": []descriptor{manifestDescriptor}})

	file, err := os.Create(output + ".partial")
	if err != nil {
		return err
	}
	archive := tar.NewWriter(file)
	put := func(path string, content []byte) error {
		if err := archive.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: path, Mode: 0o644, Size: int64(len(content)), ModTime: epoch}); err != nil {
			return err
		}
		_, err := archive.Write(content)
		return err
	}
	if err := put("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return err
	}
	if err := put("index.json", index); err != nil {
		return err
	}
	digests := make([]string, 0, len(blobs))
	for digest := range blobs {
		digests = append(digests, digest)
	}
	sort.Strings(digests)
	for _, digest := range digests {
		if err := put("blobs/sha256/"+strings.TrimPrefix(digest, "sha256:"), blobs[digest]); err != nil {
			return err
		}
	}
	if err := archive.Close(); err != nil {
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	return os.Rename(output+".partial", output)
}
