#include <stdio.h>
#include "util.h"

int main(void) {
    printf("%d\n", twice(21));
    return 0;
}
