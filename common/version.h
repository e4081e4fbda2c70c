#ifndef FL_VERSION_H
#define FL_VERSION_H
#define FAULTLINE_VERSION "0.1.0"
#endif
