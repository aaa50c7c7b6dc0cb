# bench/ — workloads run under NPTL and libgmp side by side.
