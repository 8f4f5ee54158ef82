package logging

// MainLogger is the node's own logger; chains and modules each have one
// named after them.
const MainLogger = "main"

// safeName turns a logger name into one that is also a safe file name: every
// byte outside [A-Za-z0-9._-] becomes '_', and a leading '.' becomes '_' so
// that no name is "..", hidden, or climbs out of the log directory.
func safeName(name string) string {
	if name == "" {
		return "_"
	}
	b := []byte(name)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		case c == '.' && i > 0:
		default:
			b[i] = '_'
		}
	}
	return string(b)
}
