/*
 * cpu_hog: spins on a CPU until it is killed, for make check-stress,
 * which runs the suite beside two of them.  It dies with the shell that
 * started it (PR_SET_PDEATHSIG), so even a make killed outright leaves
 * no hog behind.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(void)
{
	pid_t parent = getppid();
	volatile unsigned long spins = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return 1;
	if (getppid() != parent)	/* the parent died before prctl */
		return 0;
	for (;;)
		spins++;
}
