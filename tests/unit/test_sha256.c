/*
 * sha256: the digest import stamps each file's series with, so a file
 * imported twice is told by its content.  Known answers from FIPS 180-4's
 * examples, and the same digest however the bytes are split.
 */
#include <stdlib.h>

#include "../../common/sha256.h"
#include "records.h"

static void digest_of(const void *data, size_t len, char *hex)
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_hex(&s, hex);
}

static void the_digest_matches_the_standards_examples(void **state)
{
	static const char two_blocks[] =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[SHA256_HEX_LEN + 1];
	char *million = malloc(1000000);

	(void)state;
	assert_non_null(million);
	digest_of("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	digest_of("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	digest_of(two_blocks, strlen(two_blocks), hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', 1000000);
	digest_of(million, 1000000, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
}

/* A file is read in blocks of any size: every split gives one digest. */
static void the_digest_does_not_depend_on_how_the_bytes_are_split(void **state)
{
	unsigned char data[300];
	char whole[SHA256_HEX_LEN + 1], pieces[SHA256_HEX_LEN + 1];

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 3);
	for (size_t len = 0; len <= sizeof(data); len += 13) {
		digest_of(data, len, whole);
		for (size_t step = 1; step <= 130; step += 43) {
			struct sha256 s;

			sha256_init(&s);
			for (size_t at = 0; at < len; at += step)
				sha256_update(&s, data + at, len - at < step ? len - at : step);
			sha256_hex(&s, pieces);
			assert_string_equal(whole, pieces);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_digest_matches_the_standards_examples),
		cmocka_unit_test(the_digest_does_not_depend_on_how_the_bytes_are_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
