
BscaleJ >à1©>F9´7;