package layout

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// library is the module path of the library, which the repository's other
// modules require.
const library = "github.com/vsched/vsched"

// modFile is what `go mod edit -json` and `go work edit -json` print, the
// fields checked here.
type modFile struct {
	Require []struct{ Path, Version string }
	Use     []struct{ DiskPath string }
	Replace []struct {
		Old struct{ Path, Version string }
		New struct{ Path, Version string }
	}
}

// TestModulesRequireTheNextRelease checks the release scheme of
// docs/versioning.md ("Inside the repository") on every module of the
// repository that requires the library: its go.mod requires the library
// (and any other vsched module) at one version, the same in every module,
// never below the last release in CHANGELOG.md, and has no replace
// directive for them; its go.work, beside it, uses only the module and
// replaces each vsched module it requires with that module's folder in the
// working tree; and `make test` tests it (EXAMPLE_MODULES), but for
// adapters/knative/ekbtest (make test-ekb).
func TestModulesRequireTheNextRelease(t *testing.T) {
	root := filepath.Join("..", "..")
	dirs := moduleDirs(t, root)
	tested := exampleModules(t, root)
	versions := map[string][]string{} // version -> modules requiring it
	for _, dir := range dirs {
		mod := editJSON(t, "mod", filepath.Join(root, dir, "go.mod"))
		var own []string // the vsched modules it requires
		for _, r := range mod.Require {
			if r.Path == library || strings.HasPrefix(r.Path, library+"/") {
				own = append(own, r.Path)
				versions[r.Version] = append(versions[r.Version], dir+" ("+r.Path+")")
			}
		}
		for _, r := range mod.Replace {
			if r.Old.Path == library || strings.HasPrefix(r.Old.Path, library+"/") {
				t.Errorf("%s/go.mod replaces %s with %s: take it from the working tree in %s/go.work instead", dir, r.Old.Path, r.New.Path, dir)
			}
		}
		if len(own) == 0 {
			continue
		}
		checkWorkspace(t, root, dir, own)
		if !slices.Contains(tested, dir) && dir != filepath.Join("adapters", "knative", "ekbtest") {
			t.Errorf("%s requires the library but is not in the Makefile's EXAMPLE_MODULES: make test would not test it", dir)
		}
	}
	if len(versions) != 1 {
		t.Fatalf("the modules require the vsched modules at %d versions; want one, the next release's: %v", len(versions), versions)
	}
	for v := range versions {
		checkNextRelease(t, root, v)
	}
}

// moduleDirs are the folders of the repository's go.mod files but the
// root's, relative to root, in walk order.
func moduleDirs(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" && filepath.Dir(p) != root {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no module below the root: the walk is wrong")
	}
	return out
}

// editJSON is `go mod edit -json` (kind "mod") or `go work edit -json`
// (kind "work") of file.
func editJSON(t *testing.T, kind, file string) modFile {
	t.Helper()
	out, err := exec.Command("go", kind, "edit", "-json", file).Output()
	if err != nil {
		t.Fatalf("go %s edit -json %s: %v", kind, file, err)
	}
	var m modFile
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("go %s edit -json %s: %v", kind, file, err)
	}
	return m
}

// checkWorkspace: dir/go.work uses dir alone and replaces each of the
// vsched modules in own, at every version, with its folder.
func checkWorkspace(t *testing.T, root, dir string, own []string) {
	t.Helper()
	file := filepath.Join(root, dir, "go.work")
	if _, err := os.Stat(file); err != nil {
		t.Errorf("%s requires %v without a go.work beside its go.mod: %v", dir, own, err)
		return
	}
	work := editJSON(t, "work", file)
	var uses []string
	for _, u := range work.Use {
		uses = append(uses, u.DiskPath)
	}
	if !slices.Equal(uses, []string{"."}) {
		t.Errorf("%s/go.work uses %q; want only \".\" (the module's own build list, as its users get it)", dir, uses)
	}
	got := map[string]string{}
	for _, r := range work.Replace {
		got[r.Old.Path+"@"+r.Old.Version] = r.New.Path
	}
	want := map[string]string{}
	for _, p := range own {
		target, err := filepath.Rel(filepath.Join(root, dir), filepath.Join(root, strings.TrimPrefix(strings.TrimPrefix(p, library), "/")))
		if err != nil {
			t.Fatal(err)
		}
		want[p+"@"] = target
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s/go.work: replace %s => %q; want => %s (every version, from the working tree)", dir, strings.TrimSuffix(k, "@"), got[k], v)
		}
	}
}

var semverCore = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$`)

// checkNextRelease: v is a semantic version at or above CHANGELOG.md's
// newest release, and equal to it only on the release's own commit (when
// that release heads the CHANGELOG, no "Unreleased" above it).
func checkNextRelease(t *testing.T, root, v string) {
	t.Helper()
	if !semverCore.MatchString(v) {
		t.Fatalf("the modules require vsched at %q: not a release version (vMAJOR.MINOR.PATCH)", v)
	}
	released, first := changelogReleases(t, root)
	for _, r := range released {
		switch c := compareVersions(v, r); {
		case c < 0:
			t.Errorf("the modules require vsched %s, below the released %s: require the next release", v, r)
		case c == 0 && first != r:
			t.Errorf("the modules require vsched %s, already released, while CHANGELOG.md opens with %q: require the next release", v, first)
		}
	}
}

// changelogReleases are the versions of CHANGELOG.md's "## vX.Y.Z"
// headings, and the title of its first "## " heading.
func changelogReleases(t *testing.T, root string) (versions []string, first string) {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		title, ok := strings.CutPrefix(sc.Text(), "## ")
		if !ok {
			continue
		}
		word, _, _ := strings.Cut(title, " ")
		if first == "" {
			first = word
		}
		if semverCore.MatchString(word) {
			versions = append(versions, word)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return versions, first
}

// compareVersions orders two versions semverCore matches: by major, minor
// and patch, then a release above its pre-releases (pre-releases of one
// version compare equal: enough for "not below the last release").
func compareVersions(a, b string) int {
	ma, mb := semverCore.FindStringSubmatch(a), semverCore.FindStringSubmatch(b)
	for i := 1; i <= 3; i++ {
		x, _ := strconv.Atoi(ma[i])
		y, _ := strconv.Atoi(mb[i])
		if x != y {
			return x - y
		}
	}
	switch {
	case ma[4] == "" && mb[4] != "":
		return 1
	case ma[4] != "" && mb[4] == "":
		return -1
	}
	return 0
}

// exampleModules are the Makefile's EXAMPLE_MODULES.
func exampleModules(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "EXAMPLE_MODULES ?="); ok {
			var out []string
			for _, m := range strings.Fields(rest) {
				out = append(out, filepath.FromSlash(m))
			}
			return out
		}
	}
	t.Fatal("no EXAMPLE_MODULES in the Makefile")
	return nil
}
