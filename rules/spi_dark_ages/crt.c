/* The Combat Results Table of the session's charts (setup.charts.crt): loading its odds columns
 * and reading a result. Fire and melee read it; it calls neither. */
#include "rules/spi_dark_ages/da.h"

#include <string.h>

int da_crt_load(const json_t *charts, da_crt *crt, api_error *err) {
    memset(crt, 0, sizeof *crt);
    const json_t *c = da_chart_require(charts, "crt", err);
    if (!c) return -1;
    const json_t *cols = json_object_get(c, "columns");
    for (size_t i = 0; i < json_array_size(cols) && i < 20; i++)
        if (!(crt->columns[crt->ncolumns++] = json_string_value(json_array_get(cols, i)))) {
            crt->ncolumns = 0; /* not this module's CRT */
            break;
        }
    crt->rows = json_object_get(c, "rows");
    if (crt->ncolumns == 0) {
        api_error_set(err, 422, "invalid_state", NULL, "the session's CRT has no odds columns");
        return -1;
    }
    return 0;
}

const char *da_crt_result(const da_crt *crt, int row, int column) {
    char key[2] = {(char)('0' + row), '\0'};
    const char *r =
        json_string_value(json_array_get(json_object_get(crt->rows, key), (size_t)column));
    return r ? r : "-";
}
