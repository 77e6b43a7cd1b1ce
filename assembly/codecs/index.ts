// Column block codec exports (see assembly/README.md, section Codecs).
export {};
