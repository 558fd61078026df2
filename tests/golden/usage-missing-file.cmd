topo check
