package config

import (
	"strings"
	"testing"
)

// export_windows: windows of /api/availability, each once; off by default.
func TestExportWindows(t *testing.T) {
	base := "locations:\n  - {name: A, latitude: 1, longitude: 2}\napps:\n  - {name: a, location: A, http: {url: \"http://127.0.0.1:1/\"}}\n"
	cfg, err := Parse("t.yaml", []byte(base+"export_windows: [30d, 7d]\n"), nil)
	if err != nil || len(cfg.ExportWindows) != 2 || cfg.ExportWindows[0].String() != "30d" {
		t.Fatalf("Parse: %v %v", cfg, err)
	}
	if cfg, err := Parse("t.yaml", []byte(base), nil); err != nil || cfg.ExportWindows != nil {
		t.Errorf("default: %v %v", cfg.ExportWindows, err)
	}
	for _, bad := range []string{"[2y]", "[30d, 720h]", "[5m]"} {
		if _, err := Parse("t.yaml", []byte(base+"export_windows: "+bad+"\n"), nil); err == nil || !strings.Contains(err.Error(), "export_windows") {
			t.Errorf("export_windows: %s: %v", bad, err)
		}
	}
}
