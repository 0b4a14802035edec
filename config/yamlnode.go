package config

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// lines maps a path in the document ("apps[2].location") to the line it is
// written on: a mapping key's line for a key, an item's line for an item.
type lines map[string]int

func collectLines(n *yaml.Node, path string, into lines) {
	budget := maxVisits
	collect(n, path, into, 0, &budget)
}

// Following aliases can visit a node many times ("billion laughs"), or for
// ever when an anchor holds an alias of itself. The decoder refuses such
// documents; the walks here stop short of them so as to leave that to it.
const (
	maxAliasDepth = 32      // aliases followed in one chain
	maxVisits     = 1 << 20 // nodes visited in one walk
)

func collect(n *yaml.Node, path string, into lines, aliases int, budget *int) {
	if *budget--; *budget < 0 {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) > 0 {
			collect(n.Content[0], path, into, aliases, budget)
		}
		return
	case yaml.AliasNode:
		// What an alias brings in is written at its anchor.
		if n.Alias != nil && aliases < maxAliasDepth {
			collect(n.Alias, path, into, aliases+1, budget)
		}
		return
	}
	if _, ok := into[path]; !ok {
		into[path] = n.Line
	}
	switch n.Kind {
	case yaml.MappingNode:
		// Merged mappings first: keys written out override them.
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k, v := n.Content[i], n.Content[i+1]; k.ShortTag() == "!!merge" {
				merged := []*yaml.Node{v}
				if v.Kind == yaml.SequenceNode {
					merged = v.Content
				}
				for _, m := range merged {
					collect(m, path, into, aliases, budget)
				}
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.ShortTag() == "!!merge" {
				continue
			}
			p := joinPath(path, k.Value)
			into[p] = k.Line
			collect(v, p, into, aliases, budget)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			collect(c, path+"["+strconv.Itoa(i)+"]", into, aliases, budget)
		}
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// at returns the line of path, or of the nearest enclosing element that is
// written in the file (a default value has no line of its own).
func (l lines) at(path string) int {
	for {
		if n, ok := l[path]; ok {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return l[""]
		}
		path = path[:i]
	}
}

// checkKeys reports every mapping key under n that has no field in t, the Go
// type the node is decoded into, following yaml tags the way the decoder
// does (",inline" structs and maps, "-" skipped, lower-cased field names).
// Node.Decode has no strict mode of its own, and a strict yaml.Decoder would
// see the text before ${VAR} expansion; this walk gives the same strictness
// on the expanded nodes, with each key's line.
func checkKeys(n *yaml.Node, t reflect.Type, path string, bad func(line int, format string, args ...any)) {
	k := keyWalk{bad: bad, budget: maxVisits, reported: make(map[*yaml.Node]bool)}
	k.walk(n, t, path, 0)
}

type keyWalk struct {
	bad      func(line int, format string, args ...any)
	budget   int
	reported map[*yaml.Node]bool // an anchored key used twice is reported once
}

func (kw *keyWalk) walk(n *yaml.Node, t reflect.Type, path string, aliases int) {
	if kw.budget--; kw.budget < 0 {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			kw.walk(c, t, path, aliases)
		}
	case yaml.AliasNode:
		// The anchored keys are checked where they are used, against the
		// type they are decoded into there.
		if n.Alias != nil && aliases < maxAliasDepth {
			kw.walk(n.Alias, t, path, aliases+1)
		}
	case yaml.SequenceNode:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i, c := range n.Content {
				kw.walk(c, t.Elem(), path+"["+strconv.Itoa(i)+"]", aliases)
			}
		}
	case yaml.MappingNode:
		switch t.Kind() {
		case reflect.Map:
			for i := 1; i < len(n.Content); i += 2 {
				kw.walk(n.Content[i], t.Elem(), joinPath(path, n.Content[i-1].Value), aliases)
			}
		case reflect.Struct:
			fields, rest := yamlFields(t)
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.ShortTag() == "!!merge" {
					// "<<: *defaults" (or a list of them) merges
					// mappings into this one.
					v := n.Content[i+1]
					if v.Kind == yaml.SequenceNode {
						for _, m := range v.Content {
							kw.walk(m, t, path, aliases)
						}
					} else {
						kw.walk(v, t, path, aliases)
					}
					continue
				}
				ft, ok := fields[k.Value]
				if !ok && rest != nil {
					ft, ok = rest, true
				}
				if !ok {
					if !kw.reported[k] {
						kw.reported[k] = true
						where := ""
						if path != "" {
							where = " in " + path
						}
						kw.bad(k.Line, "unknown key %q%s%s", k.Value, where, knownKeys(fields))
					}
					continue
				}
				kw.walk(n.Content[i+1], ft, joinPath(path, k.Value), aliases)
			}
		}
	}
}

// yamlFields returns the keys a struct accepts with the type of each, and
// the element type of an inline map that takes any other key.
func yamlFields(t reflect.Type) (fields map[string]reflect.Type, rest reflect.Type) {
	fields = make(map[string]reflect.Type)
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue // yaml decodes an unexported embedded struct, as here
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if slices.Contains(strings.Split(opts, ","), "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch ft.Kind() {
			case reflect.Struct:
				inner, innerRest := yamlFields(ft)
				for k, v := range inner {
					fields[k] = v
				}
				if innerRest != nil {
					rest = innerRest
				}
			case reflect.Map:
				rest = ft.Elem()
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = f.Type
	}
	return fields, rest
}

// knownKeys lists the accepted keys when there are few enough to read.
func knownKeys(fields map[string]reflect.Type) string {
	if len(fields) == 0 || len(fields) > 12 {
		return ""
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return fmt.Sprintf(" (known keys: %s)", strings.Join(keys, ", "))
}
