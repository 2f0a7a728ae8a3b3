// The images the real node runs in the end-to-end suite, built from this code alone (no registry
// can be reached): a sandbox ("pause") image, a test app whose health is switched at run time, and
// the tool that writes them as OCI image layouts for `ctr images import`. Standard library only.
module probe-lint.dev/test-images

go 1.24
