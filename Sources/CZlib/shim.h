// zlib for the importers' gzip-declared HAR and cassette bodies (tools only; apps never link it).
#include <zlib.h>
