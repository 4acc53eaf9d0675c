#include <stdlib.h>
#include "list.h"

static int count;

union number {
    int i;
    double d;
};

node *list_push(node *head, int value)
{
    node *n = malloc(sizeof *n);
    n->value = value;
    n->next = head;
    return n;
}

int list_len(const node *head)
{
    int len = 0;
    for (; head; head = head->next)
        len++;
    return len;
}
