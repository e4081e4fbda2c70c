#include <stdio.h>

#include "commands.h"
#include "../common/version.h"

int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("faultline %s\n", FAULTLINE_VERSION);
	return 0;
}
