// Line-protocol scanner exports (see assembly/README.md, section Line protocol).
export {};
