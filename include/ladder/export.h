/* ladder — the export macro of the public API.
 *
 * libladder.so is built with hidden visibility: only what is marked LADDER_API (the C ABI of ladder.h and the
 * C++ API of ladder.hpp) is exported; the steps, the launch runtime and ladder::detail stay inside.
 */
#ifndef LADDER_EXPORT_H
#define LADDER_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define LADDER_API __attribute__((visibility("default")))
#else
#define LADDER_API
#endif

#endif /* LADDER_EXPORT_H */
