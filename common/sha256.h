/*
 * sha256: the SHA-256 digest (FIPS 180-4) of bytes handed over in
 * pieces.  What faultline uses it for is telling one file's content from
 * another's (an import seen before), not security.
 *
 * Lifecycle: sha256_init, sha256_update for each piece, sha256_hex once.
 * Nothing is allocated.
 */
#ifndef FL_SHA256_H
#define FL_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;		/* handed over so far */
	unsigned char block[64];	/* the part of a block not hashed yet */
};

#define SHA256_HEX_LEN 64

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);

/* Finishes s and writes the digest as 64 lower-case hex digits and a NUL
 * into hex (SHA256_HEX_LEN + 1 bytes).  s is spent afterwards. */
void sha256_hex(struct sha256 *s, char *hex);

#endif
